//! The protocol params of the tools whose arguments map to one call
//! (`browser_click`, `browser_type`, `browser_console_messages`), as
//! Playwright MCP means them.

use super::args::{ButtonArg, ClickArgs, ConsoleLevelArg, ModifierArg, TypeArgs};
use cotab_core::keys;
use cotab_shared::controller::{
    ClickParams, ConsoleLevel, ConsoleParams, Modifier, MouseButton, Ref, TypeParams,
};

/// The modifier Playwright's `ControlOrMeta` means on this machine.
fn modifier(m: ModifierArg) -> Modifier {
    match m {
        ModifierArg::Alt => Modifier::Alt,
        ModifierArg::Control => Modifier::Control,
        ModifierArg::ControlOrMeta => keys::control_or_meta(),
        ModifierArg::Meta => Modifier::Meta,
        ModifierArg::Shift => Modifier::Shift,
    }
}

/// `input.click` params of a `browser_click`.
pub(crate) fn click_params(a: ClickArgs) -> ClickParams {
    ClickParams {
        button: a.button.map(|b| match b {
            ButtonArg::Left => MouseButton::Left,
            ButtonArg::Right => MouseButton::Right,
            ButtonArg::Middle => MouseButton::Middle,
        }),
        click_count: a.double_click.then_some(2),
        modifiers: a.modifiers.into_iter().map(modifier).collect(),
        ..ClickParams::on(Ref(a.target))
    }
}

/// `input.type` params of a `browser_type`: like Playwright's `fill`, the
/// text replaces the element's value.
pub(crate) fn type_params(a: TypeArgs) -> TypeParams {
    TypeParams {
        text: a.text,
        element: Some(Ref(a.target)),
        clear: true,
        submit: a.submit,
        expect: None,
    }
}

/// `page.console` params of a `browser_console_messages` at `level`: that
/// level and the more severe ones, as Playwright MCP reads it.
/// The messages of `level` and the more severe ones, of the page shown
/// now unless `all`.
pub(crate) fn console_params(level: ConsoleLevelArg, all: bool) -> ConsoleParams {
    let levels = match level {
        ConsoleLevelArg::Error => &[ConsoleLevel::Error][..],
        ConsoleLevelArg::Warning => &[ConsoleLevel::Warning, ConsoleLevel::Error],
        ConsoleLevelArg::Info => &[
            ConsoleLevel::Info,
            ConsoleLevel::Warning,
            ConsoleLevel::Error,
        ],
        // Every level: the same as none named.
        ConsoleLevelArg::Debug => &[],
    };
    ConsoleParams {
        levels: (!levels.is_empty()).then(|| levels.to_vec()),
        since: None,
        current_document: !all,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn click_maps_to_input_click_by_ref() {
        let p = click_params(ClickArgs {
            element: Some("Sign in button".into()),
            target: "e4".into(),
            double_click: true,
            button: Some(ButtonArg::Right),
            modifiers: vec![ModifierArg::Shift, ModifierArg::Control],
        });
        assert_eq!(
            serde_json::to_value(&p).expect("serialises"),
            json!({"ref":"e4","button":"right","clickCount":2,"modifiers":["Shift","Control"]})
        );
        let p = click_params(ClickArgs {
            element: Some("x".into()),
            target: "e1".into(),
            double_click: false,
            button: None,
            modifiers: vec![],
        });
        assert_eq!(
            serde_json::to_value(&p).expect("serialises"),
            json!({"ref":"e1"})
        );
    }

    #[test]
    fn type_replaces_the_value() {
        let p = type_params(TypeArgs {
            element: Some("Name field".into()),
            target: "e7".into(),
            text: "Ada".into(),
            submit: true,
            slowly: false,
        });
        assert_eq!(
            serde_json::to_value(&p).expect("serialises"),
            json!({"text":"Ada","ref":"e7","clear":true,"submit":true})
        );
    }
}
