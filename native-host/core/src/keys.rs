//! The key table of `input.press`: `KeyboardEvent.key` names → the CDP
//! `Input.dispatchKeyEvent` fields that make the page see a real key press.
//!
//! The text a key produces matters: Chromium only runs a key's default
//! action (Enter submits a form, a letter is typed) when the `keyDown`
//! carries `text`. Keys without text are sent as `rawKeyDown`.
//!
//! Also the one reading of a key combination as people and Playwright
//! write it (`Control+Shift+a`, `ControlOrMeta+c`), for the CLI and for
//! `cotab mcp` alike.

use cotab_shared::controller::Modifier;
use serde_json::{json, Value};

/// What CDP needs to know about one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// `KeyboardEvent.key`.
    pub key: String,
    /// `KeyboardEvent.code`.
    pub code: String,
    /// Windows virtual key code (what Chromium maps to `keyCode`).
    pub vk: u32,
    /// Text the key produces, if any.
    pub text: Option<String>,
}

/// Looks `name` up. `None` for an unknown key name.
pub fn lookup(name: &str) -> Option<KeyInfo> {
    let named = |code: &str, vk: u32, text: Option<&str>| {
        Some(KeyInfo {
            key: name.to_string(),
            code: code.to_string(),
            vk,
            text: text.map(str::to_string),
        })
    };
    match name {
        "Enter" => named("Enter", 13, Some("\r")),
        "Tab" => named("Tab", 9, None),
        "Escape" => named("Escape", 27, None),
        "Backspace" => named("Backspace", 8, None),
        "Delete" => named("Delete", 46, None),
        "Space" | " " => Some(KeyInfo {
            key: " ".into(),
            code: "Space".into(),
            vk: 32,
            text: Some(" ".into()),
        }),
        "ArrowUp" => named("ArrowUp", 38, None),
        "ArrowDown" => named("ArrowDown", 40, None),
        "ArrowLeft" => named("ArrowLeft", 37, None),
        "ArrowRight" => named("ArrowRight", 39, None),
        "Home" => named("Home", 36, None),
        "End" => named("End", 35, None),
        "PageUp" => named("PageUp", 33, None),
        "PageDown" => named("PageDown", 34, None),
        "Insert" => named("Insert", 45, None),
        _ => function_key(name).or_else(|| printable(name)),
    }
}

fn function_key(name: &str) -> Option<KeyInfo> {
    let n: u32 = name.strip_prefix('F')?.parse().ok()?;
    if !(1..=12).contains(&n) || name.len() > 3 || name.starts_with("F0") {
        return None;
    }
    Some(KeyInfo {
        key: name.into(),
        code: name.into(),
        vk: 111 + n,
        text: None,
    })
}

fn printable(name: &str) -> Option<KeyInfo> {
    let mut chars = name.chars();
    let c = chars.next()?;
    if chars.next().is_some() || c.is_control() {
        return None;
    }
    let (code, vk) = if c.is_ascii_alphabetic() {
        let up = c.to_ascii_uppercase();
        (format!("Key{up}"), up as u32)
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), c as u32)
    } else {
        // Other characters have no portable physical key; the text alone
        // is what pages observe.
        (String::new(), 0)
    };
    Some(KeyInfo {
        key: c.to_string(),
        code,
        vk,
        text: Some(c.to_string()),
    })
}

/// The modifier Playwright's `ControlOrMeta` means on this machine.
pub fn control_or_meta() -> Modifier {
    if cfg!(target_os = "macos") {
        Modifier::Meta
    } else {
        Modifier::Control
    }
}

/// A modifier by its name: `Control`/`Ctrl`, `Shift`, `Alt`/`Option`,
/// `Meta`/`Cmd`/`Command`, or `ControlOrMeta` ([`control_or_meta`]).
pub fn parse_modifier(name: &str) -> Result<Modifier, String> {
    match name {
        "Control" | "Ctrl" => Ok(Modifier::Control),
        "ControlOrMeta" => Ok(control_or_meta()),
        "Shift" => Ok(Modifier::Shift),
        "Alt" | "Option" => Ok(Modifier::Alt),
        "Meta" | "Cmd" | "Command" => Ok(Modifier::Meta),
        _ => Err(format!(
            "unknown modifier `{name}` (use Control, Shift, Alt, Meta or ControlOrMeta)"
        )),
    }
}

/// Splits `Control+Shift+a` into its modifiers and its key, Playwright's
/// way: the key is what follows the last `+`, and a lone `+` (or one after
/// `+`, as in `Shift++`) is the key itself.
pub fn parse_combo(combo: &str) -> Result<(Vec<Modifier>, String), String> {
    let (mods, key) = match combo.strip_suffix("++") {
        Some(mods) => (mods, "+"),
        None if combo == "+" => ("", "+"),
        None => combo.rsplit_once('+').unwrap_or(("", combo)),
    };
    if key.is_empty() {
        return Err("the key combination names no key".into());
    }
    let modifiers = mods
        .split('+')
        .filter(|m| !m.is_empty())
        .map(parse_modifier)
        .collect::<Result<Vec<_>, _>>()?;
    Ok((modifiers, key.to_string()))
}

/// The CDP modifier mask for `modifiers`.
pub fn modifier_mask(modifiers: &[Modifier]) -> u32 {
    modifiers.iter().fold(0, |m, k| m | k.cdp_bit())
}

/// The two `Input.dispatchKeyEvent` params objects (down, then up) for a
/// press of `key` with `modifiers`. With Control, Alt or Meta held no text
/// is sent, so shortcuts act instead of typing.
pub fn key_events(key: &KeyInfo, modifiers: &[Modifier]) -> [Value; 2] {
    let mask = modifier_mask(modifiers);
    let shortcut = modifiers
        .iter()
        .any(|m| matches!(m, Modifier::Control | Modifier::Alt | Modifier::Meta));
    let text = if shortcut { None } else { key.text.as_deref() };
    let mut down = json!({
        "type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
        "key": key.key,
        "code": key.code,
        "windowsVirtualKeyCode": key.vk,
        "nativeVirtualKeyCode": key.vk,
        "modifiers": mask,
    });
    if let (Some(t), Some(obj)) = (text, down.as_object_mut()) {
        obj.insert("text".into(), json!(t));
        obj.insert("unmodifiedText".into(), json!(t));
    }
    let up = cotab_shared::input::key_up(&down, Some(mask));
    [down, up]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys() {
        let enter = lookup("Enter").expect("known");
        assert_eq!(
            (enter.code.as_str(), enter.vk, enter.text.as_deref()),
            ("Enter", 13, Some("\r"))
        );
        for (name, vk) in [
            ("Tab", 9),
            ("Escape", 27),
            ("Backspace", 8),
            ("Delete", 46),
            ("ArrowUp", 38),
            ("ArrowDown", 40),
            ("ArrowLeft", 37),
            ("ArrowRight", 39),
            ("Home", 36),
            ("End", 35),
            ("PageUp", 33),
            ("PageDown", 34),
            ("Insert", 45),
            ("F1", 112),
            ("F12", 123),
        ] {
            let k = lookup(name).expect(name);
            assert_eq!(k.vk, vk, "{name}");
            assert_eq!(k.text, None, "{name}");
        }
        let space = lookup("Space").expect("known");
        assert_eq!(
            (space.key.as_str(), space.vk, space.text.as_deref()),
            (" ", 32, Some(" "))
        );
        assert_eq!(lookup(" "), Some(space));
    }

    #[test]
    fn printable_keys() {
        let a = lookup("a").expect("known");
        assert_eq!(
            (a.code.as_str(), a.vk, a.text.as_deref()),
            ("KeyA", 65, Some("a"))
        );
        let z = lookup("Z").expect("known");
        assert_eq!(
            (z.code.as_str(), z.vk, z.text.as_deref()),
            ("KeyZ", 90, Some("Z"))
        );
        let seven = lookup("7").expect("known");
        assert_eq!((seven.code.as_str(), seven.vk), ("Digit7", 55));
        assert_eq!(lookup("é").and_then(|k| k.text), Some("é".into()));
    }

    #[test]
    fn unknown_keys() {
        for name in ["", "F0", "F13", "F01", "Enterr", "ab", "\u{7}", "Shift+a"] {
            assert_eq!(lookup(name), None, "{name:?}");
        }
    }

    #[test]
    fn enter_events_carry_text_but_shortcuts_do_not() {
        let enter = lookup("Enter").expect("known");
        let [down, up] = key_events(&enter, &[]);
        assert_eq!(down["type"], "keyDown");
        assert_eq!(down["text"], "\r");
        assert_eq!(up["type"], "keyUp");
        let a = lookup("a").expect("known");
        let [down, _] = key_events(&a, &[Modifier::Control, Modifier::Shift]);
        assert_eq!(down["type"], "rawKeyDown");
        assert!(down.get("text").is_none());
        assert_eq!(down["modifiers"], 10);
        let [down, _] = key_events(&lookup("Tab").expect("known"), &[Modifier::Shift]);
        assert_eq!(down["type"], "rawKeyDown");
        assert_eq!(down["modifiers"], 8);
    }

    #[test]
    fn key_combinations_read_as_playwright_writes_them() {
        assert_eq!(parse_combo("Enter"), Ok((vec![], "Enter".into())));
        assert_eq!(parse_combo("a"), Ok((vec![], "a".into())));
        assert_eq!(parse_combo("+"), Ok((vec![], "+".into())));
        assert_eq!(
            parse_combo("Control+a"),
            Ok((vec![Modifier::Control], "a".into()))
        );
        assert_eq!(
            parse_combo("Control+Shift+Tab"),
            Ok((vec![Modifier::Control, Modifier::Shift], "Tab".into()))
        );
        assert_eq!(
            parse_combo("Shift++"),
            Ok((vec![Modifier::Shift], "+".into()))
        );
        assert_eq!(
            parse_combo("ControlOrMeta+c"),
            Ok((vec![control_or_meta()], "c".into()))
        );
        assert_eq!(
            parse_combo("Cmd+Option+x"),
            Ok((vec![Modifier::Meta, Modifier::Alt], "x".into()))
        );
        assert!(parse_combo("Hyper+a").is_err());
        assert!(parse_combo("Control+").is_err());
        assert_eq!(parse_modifier("Ctrl"), Ok(Modifier::Control));
        assert!(parse_modifier("Hyper").is_err());
    }
}
