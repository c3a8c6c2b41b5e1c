//! The tasks, each a fixed sequence of tool calls written for each server
//! from its own tool list, checking what it gets: no model. Where a
//! server's answer does not show what the next step needs, the script
//! asks for it the cheapest way that server offers (its find tool, its
//! snapshot tool, the file its answer names), and that is counted.

use super::mcp::{Peer, Server};
use anyhow::{anyhow, ensure, Result};
use serde_json::json;

/// The tasks, by name.
pub(crate) const TASKS: [&str; 5] = ["form", "big table", "checkout", "article", "two tabs"];

/// Runs task `index` on `s` against the fixture site at `site`.
pub(crate) async fn run(index: usize, s: &mut Server, site: &str) -> Result<()> {
    match index {
        0 => form(s, site).await,
        1 => big_table(s, site).await,
        2 => checkout(s, site).await,
        3 => article(s, site).await,
        4 => two_tabs(s, site).await,
        _ => Err(anyhow!("no task {index}")),
    }
}

/// The page's one tab, as chrome-devtools-mcp names it.
const PAGE: u64 = 1;

/// The ref of the first element of `page` with role `role` whose name
/// starts with `name` (a field's name may carry what is wrong with it, or
/// spaces around it): `[ref=e12]` (cotab, Playwright MCP) or `uid=1_12`
/// (chrome-devtools-mcp).
fn target(page: &str, role: &str, name: &str) -> Option<String> {
    let opening = format!("{role} \"");
    page.lines().find_map(|line| {
        let at = line.find(&opening)? + opening.len();
        let named = line[at..].split('"').next()?.trim_start();
        named.starts_with(name).then(|| ref_on(line)).flatten()
    })
}

/// The element ref on `line`.
fn ref_on(line: &str) -> Option<String> {
    if let Some(at) = line.find("[ref=") {
        let rest = &line[at + 5..];
        return Some(rest[..rest.find(']')?].to_owned());
    }
    let at = line.find("uid=")?;
    let rest = &line[at + 4..];
    let end = rest.find(' ').unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

/// [`target`], or a failure naming what was looked for.
fn need(page: &str, role: &str, name: &str) -> Result<String> {
    target(page, role, name).ok_or_else(|| anyhow!("no {role} {name:?} in:\n{}", cut(page)))
}

/// The first 2,000 bytes of a page, for a failure's message.
fn cut(page: &str) -> &str {
    let mut end = page.len().min(2000);
    while !page.is_char_boundary(end) {
        end -= 1;
    }
    &page[..end]
}

/// Goes to `url` and returns what the model sees of the page: the
/// answer when it shows it, else the server's snapshot.
async fn open(s: &mut Server, url: &str) -> Result<String> {
    match s.peer {
        Peer::Cotab => s.call("browser_navigate", json!({"url": url})).await,
        Peer::PlaywrightMcp => {
            let answer = s.call("browser_navigate", json!({"url": url})).await?;
            s.read_named(&answer)
        }
        Peer::ChromeDevtoolsMcp => {
            s.call(
                "navigate_page",
                json!({"pageId": PAGE, "type": "url", "url": url}),
            )
            .await?;
            s.call("take_snapshot", json!({"pageId": PAGE})).await
        }
    }
}

/// One field of a form: its label, its kind as Playwright MCP names it,
/// and its value.
type Field<'a> = (&'a str, &'a str, &'a str);

/// Fills `fields`, found in `page` by their labels.
async fn fill(s: &mut Server, page: &str, fields: &[Field<'_>]) -> Result<()> {
    let mut list = Vec::new();
    for (label, kind, value) in fields {
        let target = need(page, kind, label)?;
        list.push(match s.peer {
            Peer::ChromeDevtoolsMcp => json!({"uid": target, "value": value}),
            _ => json!({"target": target, "name": label, "type": kind, "value": value}),
        });
    }
    let (tool, args) = match s.peer {
        Peer::ChromeDevtoolsMcp => ("fill_form", json!({"pageId": PAGE, "elements": list})),
        _ => ("browser_fill_form", json!({"fields": list})),
    };
    s.call(tool, args).await?;
    Ok(())
}

/// Clicks the element of `page` with `role` and `name` and returns what
/// the model sees of the page after it: all of it, or, when the script
/// only needs to see `text`, what the server's find tool shows of it where
/// the answer does not.
async fn click(
    s: &mut Server,
    page: &str,
    (role, name): (&str, &str),
    look: Option<&str>,
) -> Result<String> {
    let target = need(page, role, name)?;
    let element = format!("{role} \"{name}\"");
    let answer = match s.peer {
        Peer::ChromeDevtoolsMcp => {
            let args = json!({"pageId": PAGE, "uid": target, "includeSnapshot": true});
            return s.call("click", args).await;
        }
        _ => {
            let args = json!({"element": element, "target": target});
            s.call("browser_click", args).await?
        }
    };
    match look {
        Some(text) if !answer.contains(text) => find(s, text).await,
        Some(_) => Ok(answer),
        None if s.peer == Peer::PlaywrightMcp => s.read_named(&answer),
        None => Ok(answer),
    }
}

/// How a script looks for what an answer did not show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Look {
    /// The server's snapshot tool (or the file its answer names), as the
    /// task bench's rules say; its find tool only where the snapshot is
    /// cut before what is looked for.
    Snapshot,
    /// The server's find tool where it has one: what a frugal model does.
    Find,
}

impl Look {
    /// `COTAB_TASK_LOOK` (`snapshot`, the default, or `find`).
    pub(crate) fn from_env() -> Look {
        match std::env::var("COTAB_TASK_LOOK").as_deref() {
            Ok("find") => Look::Find,
            _ => Look::Snapshot,
        }
    }
}

/// What the model sees of `text` on the page: the server's find tool's
/// lines or its snapshot, as [`Look::from_env`] says (chrome-devtools-mcp
/// has no find tool: its snapshot).
async fn find(s: &mut Server, text: &str) -> Result<String> {
    let by_find = json!({"text": text});
    match (s.peer, Look::from_env()) {
        (Peer::ChromeDevtoolsMcp, _) => s.call("take_snapshot", json!({"pageId": PAGE})).await,
        (_, Look::Find) => s.call("browser_find", by_find).await,
        // Its snapshot would be cut as the outline already shown was.
        (_, Look::Snapshot) if s.saw_cut => s.call("browser_find", by_find).await,
        (_, Look::Snapshot) => {
            let page = s.call("browser_snapshot", json!({})).await?;
            match page.contains(text) {
                true => Ok(page),
                false => s.call("browser_find", by_find).await,
            }
        }
    }
}

/// Twelve fields filled from what the person gave, two of them wrong; the
/// page says which; they are mended with the person's other values and
/// the form sent again.
async fn form(s: &mut Server, site: &str) -> Result<()> {
    let page = open(s, &format!("{site}/tasks/form")).await?;
    let fields: [Field; 12] = [
        ("Full name", "textbox", "Ada Lovelace"),
        ("Email", "textbox", "ada.lovelace.example.com"),
        ("Phone", "textbox", "12345"),
        ("Company", "textbox", "Analytical Engines Ltd"),
        ("Street", "textbox", "12 St James's Square"),
        ("City", "textbox", "London"),
        ("Postcode", "textbox", "10115"),
        ("Country", "combobox", "United Kingdom"),
        ("Ticket", "combobox", "Speaker"),
        ("Dietary needs", "textbox", "none"),
        ("How did you hear of us", "textbox", "a colleague"),
        ("I accept the terms", "checkbox", "true"),
    ];
    fill(s, &page, &fields).await?;
    let after = click(s, &page, ("button", "Register"), None).await?;
    for said in ["Email must", "Phone must"] {
        ensure!(
            after.contains(said),
            "the page's {said:?} is not shown:\n{}",
            cut(&after)
        );
    }
    ensure!(
        !after.contains("Postcode must"),
        "a right field was refused"
    );
    // Refs of the page after, where it shows the fields; else those of
    // before, which hold in the same document.
    let with_fields = match target(&after, "textbox", "Email") {
        Some(_) => after.as_str(),
        None => page.as_str(),
    };
    let mended: [Field; 2] = [
        ("Email", "textbox", "ada@example.com"),
        ("Phone", "textbox", "+44 20 7946 0958"),
    ];
    fill(s, with_fields, &mended).await?;
    let done = click(s, with_fields, ("button", "Register"), Some("Thank you")).await?;
    ensure!(
        done.contains("Thank you, Ada Lovelace"),
        "not registered:\n{}",
        cut(&done)
    );
    Ok(())
}

/// The product priced 951.19 EUR, one row of 450 on a page of about
/// 5,000 elements, is found and put in the cart.
async fn big_table(s: &mut Server, site: &str) -> Result<()> {
    const PRICE: &str = "951.19 EUR";
    let url = format!("{site}/tasks/big");
    let found = match s.peer {
        Peer::PlaywrightMcp => {
            s.call("browser_navigate", json!({"url": url})).await?;
            find(s, PRICE).await?
        }
        _ => open(s, &url).await?,
    };
    // An outline cut before the row.
    let found = match found.contains(PRICE) {
        true => found,
        false => find(s, PRICE).await?,
    };
    // The row's button, if what was found shows it; else the product's
    // number from the row, and its button looked for by name.
    let lines: Vec<&str> = found.lines().collect();
    // The last line that shows the price: the cell, under a row that may
    // show it too.
    let at = lines
        .iter()
        .rposition(|l| {
            l.contains(PRICE) && (l.trim_start().starts_with('-') || ref_on(l).is_some())
        })
        .ok_or_else(|| anyhow!("{PRICE} not found:\n{}", cut(&found)))?;
    let button = lines[at..]
        .iter()
        .take(6)
        .find(|l| target(l, "button", "Add ").is_some())
        .map(|l| l.to_string());
    let (view, name) = match button {
        Some(line) => (line, "Add ".to_owned()),
        None => {
            let number = lines[..=at]
                .iter()
                .rev()
                .find_map(|l| product_number(l))
                .ok_or_else(|| anyhow!("no product number near {PRICE}:\n{}", cut(&found)))?;
            let name = format!("Add {number} to the cart");
            let view = match s.peer {
                Peer::ChromeDevtoolsMcp => found.clone(),
                _ => find(s, &name).await?,
            };
            (view, name)
        }
    };
    let after = click(s, &view, ("button", &name), Some("The cart holds")).await?;
    ensure!(
        after.contains("The cart holds Product 317 at 951.19 EUR."),
        "not in the cart:\n{}",
        cut(&after)
    );
    Ok(())
}

/// The checkout over three pages: the basket's link, the shipping form,
/// and the order placed once its confirmation is accepted.
async fn checkout(s: &mut Server, site: &str) -> Result<()> {
    let shop = open(s, &format!("{site}/tasks/shop")).await?;
    let shipping = click(s, &shop, ("link", "Checkout"), None).await?;
    let address: [Field; 3] = [
        ("Full name", "textbox", "Ada Lovelace"),
        ("Street", "textbox", "12 St James's Square"),
        ("City", "textbox", "London"),
    ];
    fill(s, &shipping, &address).await?;
    const TO: &str = "Ship to Ada Lovelace, London";
    let pay = click(s, &shipping, ("button", "Continue"), None).await?;
    ensure!(pay.contains(TO), "not on the payment page:\n{}", cut(&pay));
    const ASKED: &str = "Place the order for 42.00 EUR?";
    let asked = click(s, &pay, ("button", "Place order"), Some(ASKED)).await?;
    ensure!(
        asked.contains(ASKED),
        "no confirmation shown:\n{}",
        cut(&asked)
    );
    let answer = match s.peer {
        Peer::ChromeDevtoolsMcp => {
            let args = json!({"pageId": PAGE, "action": "accept"});
            s.call("handle_dialog", args).await?
        }
        _ => {
            s.call("browser_handle_dialog", json!({"accept": true}))
                .await?
        }
    };
    const PLACED: &str = "Order 1042 placed for Ada Lovelace.";
    let done = match answer.contains(PLACED) {
        true => answer,
        false => find(s, PLACED).await?,
    };
    ensure!(done.contains(PLACED), "no order:\n{}", cut(&done));
    Ok(())
}

/// A long article read, and the day the bridge opened taken from it.
async fn article(s: &mut Server, site: &str) -> Result<()> {
    const FACT: &str = "14 March 1887";
    let page = open(s, &format!("{site}/tasks/article")).await?;
    let page = match page.contains("Aldersgate Bridge opened") {
        true => page,
        false => find(s, "Aldersgate Bridge").await?,
    };
    ensure!(page.contains(FACT), "the day is not read:\n{}", cut(&page));
    Ok(())
}

/// A price read in the tab the page opens, and written back in the first
/// tab.
async fn two_tabs(s: &mut Server, site: &str) -> Result<()> {
    let page = open(s, &format!("{site}/tasks/tabs")).await?;
    click(s, &page, ("link", "Open the price list"), Some("")).await?;
    if s.peer == Peer::ChromeDevtoolsMcp {
        s.call("list_pages", json!({})).await?;
    }
    let prices = switch_to(s, 1).await?;
    ensure!(
        prices.contains("Gold") && prices.contains("29 EUR"),
        "the price list is not read:\n{}",
        cut(&prices)
    );
    let first = switch_to(s, 0).await?;
    fill(s, &first, &[("Gold price seen", "textbox", "29 EUR")]).await?;
    let saved = click(s, &first, ("button", "Save"), Some("Saved: 29 EUR")).await?;
    ensure!(
        saved.contains("Saved: 29 EUR"),
        "not saved:\n{}",
        cut(&saved)
    );
    // The person's browser is cotab's: its price list is closed again,
    // uncounted; each peer's own browser goes with it.
    if s.peer == Peer::Cotab {
        let close = json!({"action": "close", "index": 1});
        s.uncounted("browser_tabs", close).await?;
    }
    Ok(())
}

/// Makes the tab at `index` (in the order the server lists its tabs) the
/// one the next calls act on, and returns what the model sees of it.
async fn switch_to(s: &mut Server, index: u64) -> Result<String> {
    match s.peer {
        Peer::Cotab => {
            let args = json!({"action": "select", "index": index});
            s.call("browser_tabs", args).await
        }
        Peer::PlaywrightMcp => {
            let args = json!({"action": "select", "index": index});
            // Its answer lists the tabs, without the page: the page is
            // its snapshot's (inline, or in the file it names).
            let answer = match s.call("browser_tabs", args).await? {
                listed if super::mcp::named_file(&listed).is_some() => listed,
                _ => s.call("browser_snapshot", json!({})).await?,
            };
            match super::mcp::named_file(&answer) {
                Some(_) => s.read_named(&answer),
                None => Ok(answer),
            }
        }
        Peer::ChromeDevtoolsMcp => {
            let page = json!({"pageId": index + 1});
            s.call("select_page", page.clone()).await?;
            s.call("take_snapshot", page).await
        }
    }
}

/// The number of `Product N` on a line.
fn product_number(line: &str) -> Option<u32> {
    let at = line.find("Product ")? + "Product ".len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_read_in_each_servers_format() {
        let page = "Clicked button \"Go\"\n- button \"Go\" [ref=e3]";
        assert_eq!(target(page, "button", "Go").as_deref(), Some("e3"));
        let page = "  uid=1_1 textbox \"Email \"\n  uid=1_2 checkbox \" I accept\"\n";
        assert_eq!(target(page, "textbox", "Email").as_deref(), Some("1_1"));
        assert_eq!(target(page, "checkbox", "I accept").as_deref(), Some("1_2"));
        assert_eq!(target("- heading \"Hi\" [ref=e1]", "button", "Hi"), None);
        assert_eq!(product_number("- cell \"Product 317\" [ref=e9]"), Some(317));
    }
}
