//! `browser_press_key`, and `browser_type`: text into an element, its value replaced — at once as
//! Playwright's `fill` does (`input.type`), or with `slowly` one key press
//! per character as its `pressSequentially` does, so the page's key
//! handlers see every key (`input.press`, after the element was focused
//! and emptied).

use super::answers::named;
use super::args::{PressKeyArgs, TypeArgs};
use super::bridge::Bridge;
use super::changes::Set;
use super::outcome::{ToolFailure, ToolOutput};
use super::params::type_params;
use cotab_core::keys;
use cotab_shared::controller::{Press, PressParams, Ref, Type, TypeParams};

impl Bridge {
    /// `browser_press_key`.
    pub(super) async fn press_key(&mut self, a: PressKeyArgs) -> Result<ToolOutput, ToolFailure> {
        let (modifiers, key) = keys::parse_combo(&a.key).map_err(ToolFailure::invalid)?;
        self.acted::<Press>(&PressParams {
            key,
            modifiers,
            expect: None,
        })
        .await?;
        Ok(self.with_snapshot(format!("Pressed {}", a.key)).await)
    }

    /// `browser_type`.
    pub(super) async fn type_text(&mut self, a: TypeArgs) -> Result<ToolOutput, ToolFailure> {
        let line = format!(
            "Typed {} character(s) into {}{}",
            a.text.chars().count(),
            named(a.element.as_deref(), &a.target),
            if a.submit { " and pressed Enter" } else { "" }
        );
        if !a.slowly {
            let set = vec![(a.target.clone(), Set::Text(a.text.clone()))];
            self.acted::<Type>(&type_params(a)).await?;
            return Ok(self.with_snapshot_set(line, set).await);
        }
        // Focused and emptied the way `input.type` does, then each key.
        self.acted::<Type>(&TypeParams {
            text: String::new(),
            element: Some(Ref(a.target.clone())),
            clear: true,
            submit: false,
            expect: None,
        })
        .await?;
        let mut keys: Vec<String> = a.text.chars().map(key_of).collect();
        if a.submit {
            keys.push("Enter".into());
        }
        for key in keys {
            self.acted::<Press>(&PressParams {
                key,
                modifiers: Vec::new(),
                expect: None,
            })
            .await?;
        }
        Ok(self.with_snapshot(line).await)
    }
}

/// The key that types `c`: a line break is Enter, a tab Tab, anything
/// else the character itself.
fn key_of(c: char) -> String {
    match c {
        '\n' | '\r' => "Enter".into(),
        '\t' => "Tab".into(),
        c => c.to_string(),
    }
}
