//! The tools that act on elements by their refs and answer with a fresh
//! snapshot: `browser_click`, `browser_hover`, `browser_select_option`,
//! `browser_drag`.

use super::answers::{click_line, named, quoted_list};
use super::args::{ClickArgs, DragArgs, ElementArgs, SelectOptionArgs};
use super::bridge::Bridge;
use super::outcome::{ToolFailure, ToolOutput};
use super::params::click_params;
use cotab_shared::controller::{
    Click, Drag, DragParams, Hover, HoverParams, Ref, SelectOption, SelectOptionParams,
};

impl Bridge {
    /// `browser_click`.
    pub(super) async fn click(&mut self, a: ClickArgs) -> Result<ToolOutput, ToolFailure> {
        let line = click_line(&a);
        self.acted::<Click>(&click_params(a)).await?;
        Ok(self.with_snapshot(line).await)
    }

    /// `browser_hover`.
    pub(super) async fn hover(&mut self, a: ElementArgs) -> Result<ToolOutput, ToolFailure> {
        let line = format!("Hovered over {}", named(a.element.as_deref(), &a.target));
        self.acted::<Hover>(&HoverParams {
            element: Some(Ref(a.target)),
            ..HoverParams::default()
        })
        .await?;
        Ok(self.with_snapshot(line).await)
    }

    /// `browser_select_option`.
    pub(super) async fn select_option(
        &mut self,
        a: SelectOptionArgs,
    ) -> Result<ToolOutput, ToolFailure> {
        let name = named(a.element.as_deref(), &a.target);
        let r = self
            .act::<SelectOption>(&SelectOptionParams {
                element: Ref(a.target),
                values: a.values,
            })
            .await?;
        Ok(self
            .with_snapshot(format!("Selected {} in {name}", quoted_list(&r.selected)))
            .await)
    }

    /// `browser_drag`.
    pub(super) async fn drag(&mut self, a: DragArgs) -> Result<ToolOutput, ToolFailure> {
        let line = format!(
            "Dragged {} to {}",
            named(a.start_element.as_deref(), &a.start_target),
            named(a.end_element.as_deref(), &a.end_target)
        );
        self.acted::<Drag>(&DragParams {
            from: Ref(a.start_target),
            to: Ref(a.end_target),
        })
        .await?;
        Ok(self.with_snapshot(line).await)
    }
}
