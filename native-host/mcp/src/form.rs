//! `browser_fill_form`: several fields in one tool call, each the way
//! Playwright MCP fills it — a text box or slider typed into (its value
//! replaced), a checkbox or radio checked or unchecked (`"true"` or
//! `"false"`), a combobox's option picked by its text — in order, stopping
//! at the first field that fails (the answer names it and says which were
//! filled).

use super::answers::named;
use super::args::{FieldKind, FillFormArgs, FormField};
use super::bridge::Bridge;
use super::changes::Set;
use super::outcome::{ToolFailure, ToolOutput};
use cotab_shared::controller::{
    Check, CheckParams, Ref, SelectOption, SelectOptionParams, Type, TypeParams,
};

impl Bridge {
    /// Fills `a.fields` in order.
    pub(super) async fn fill_form(&mut self, a: FillFormArgs) -> Result<ToolOutput, ToolFailure> {
        // Every value is judged before the page is touched.
        let checked: Vec<Option<bool>> =
            a.fields.iter().map(check_state).collect::<Result<_, _>>()?;
        let mut lines = Vec::with_capacity(a.fields.len());
        let mut set = Vec::with_capacity(a.fields.len());
        for (field, checked) in a.fields.into_iter().zip(checked) {
            let name = named(Some(&field.name), &field.target);
            let done = self.fill(&field, checked).await;
            if let Err(mut e) = done {
                let filled = match lines.len() {
                    0 => "no field was filled".to_owned(),
                    n => format!("{n} field(s) before it were filled"),
                };
                e.message = format!("filling {name}: {}; {filled}", e.message);
                return Err(e);
            }
            set.push((
                field.target.clone(),
                match (field.kind, checked) {
                    (_, Some(c)) => Set::Checked(c),
                    (FieldKind::Combobox, _) => Set::Chosen(field.value.clone()),
                    _ => Set::Text(field.value.clone()),
                },
            ));
            lines.push(match (field.kind, checked) {
                (_, Some(true)) => format!("- checked {name}"),
                (_, Some(false)) => format!("- unchecked {name}"),
                (FieldKind::Combobox, _) => format!("- selected \"{}\" in {name}", field.value),
                _ => format!("- filled {name}"),
            });
        }
        let text = format!("Filled {} field(s):\n{}", lines.len(), lines.join("\n"));
        Ok(self.with_snapshot_set(text, set).await)
    }

    /// Fills one field; `checked` is its state for a checkbox or radio.
    async fn fill(&mut self, field: &FormField, checked: Option<bool>) -> Result<(), ToolFailure> {
        let element = Ref(field.target.clone());
        match (field.kind, checked) {
            (_, Some(checked)) => self.acted::<Check>(&CheckParams { element, checked }).await,
            (FieldKind::Combobox, _) => self
                .act::<SelectOption>(&SelectOptionParams {
                    element,
                    values: vec![field.value.clone()],
                })
                .await
                .map(drop),
            _ => {
                self.acted::<Type>(&TypeParams {
                    text: field.value.clone(),
                    element: Some(element),
                    clear: true,
                    submit: false,
                    expect: None,
                })
                .await
            }
        }
    }
}

/// The state a checkbox or radio field asks for (`None` for the other
/// kinds); a value other than `true` or `false` is refused.
fn check_state(field: &FormField) -> Result<Option<bool>, ToolFailure> {
    match field.kind {
        FieldKind::Checkbox | FieldKind::Radio => match field.value.as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            other => Err(ToolFailure::invalid(format!(
                "the value of {} (a {}) must be `true` or `false`, not {other:?}",
                named(Some(&field.name), &field.target),
                if field.kind == FieldKind::Radio {
                    "radio"
                } else {
                    "checkbox"
                }
            ))),
        },
        _ => Ok(None),
    }
}
