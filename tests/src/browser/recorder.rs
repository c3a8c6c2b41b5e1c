//! What the input recorder page (`/input`) says the page holds: the
//! keys and mouse buttons pressed and not yet released.

use super::{Browser, Page, STARTUP_DEADLINE};
use anyhow::Result;

impl Browser {
    /// Keys and buttons the input recorder page (`/input`) sees held.
    pub async fn balance(&self, page: &Page) -> Result<(i64, i64)> {
        let b = self.eval(page, "balance()").await?;
        Ok((
            b["keys"].as_i64().unwrap_or(-99),
            b["buttons"].as_i64().unwrap_or(-99),
        ))
    }

    /// Waits until the input recorder page sees `want` (keys, buttons) held.
    pub async fn wait_balance(&self, page: &Page, want: (i64, i64), what: &str) -> Result<()> {
        let clock = crate::Deadline::new(what, STARTUP_DEADLINE);
        loop {
            let (keys, buttons) = self.balance(page).await?;
            if (keys, buttons) == want {
                return Ok(());
            }
            clock
                .next(format!("{keys} key(s) and {buttons} button(s) held"))
                .await?;
        }
    }
}
