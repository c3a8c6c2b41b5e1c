//! The person's side of videos ([`crate::video`]): what the side panels
//! are told of them, and the person's own start and stop from a panel.

use super::Shell;
use crate::video::{screencast, Owner, StartError};
use cotab_shared::cdp::StartScreencast;
use cotab_shared::controller::{DEFAULT_VIDEO_FPS, DEFAULT_VIDEO_SIZE};
use cotab_shared::watch::TabVideo;
use cotab_shared::TabId;

impl Shell {
    /// Ends `tab`'s video, if it is recorded, because of `why` (none: its
    /// owner stopped it), and gives the tab its keep-alive screencast
    /// back. Whether it was recorded.
    pub fn end_video(&self, tab: TabId, why: Option<&str>) -> bool {
        let ended = self.videos.end(tab, why);
        if ended {
            self.keep_alive_screencast(tab);
        }
        ended
    }

    /// Runs the keep-alive screencast on `tab` again, in place of a
    /// video's.
    pub fn keep_alive_screencast(&self, tab: TabId) {
        self.screencast(tab, &StartScreencast::KEEP_ALIVE);
    }

    /// The videos being recorded, then the person's latest saved ones, as
    /// the panels show them.
    pub fn tab_videos(&self) -> Vec<TabVideo> {
        let running = self.videos.running();
        let mut list: Vec<TabVideo> = self.with_core(|c| {
            running
                .into_iter()
                .map(|(tab, owner, path)| TabVideo {
                    tab,
                    agent: match owner {
                        Owner::Agent(sid) => Some(c.agent_of(sid).unwrap_or("an agent").to_owned()),
                        Owner::Person => None,
                    },
                    path: path.display().to_string(),
                    recording: true,
                })
                .collect()
        });
        list.extend(self.videos.saved().into_iter().map(|(tab, path)| TabVideo {
            tab,
            agent: None,
            path: path.display().to_string(),
            recording: false,
        }));
        list
    }

    /// The person starts (`record`) or stops the video of `tab` from a
    /// side panel. Stopping ends any video of the tab: the person's word
    /// wins over an agent's.
    pub async fn person_video(&self, tab: TabId, record: bool) -> Result<(), String> {
        if !record {
            let Some(owner) = self.videos.owner(tab) else {
                return Ok(());
            };
            let why = match owner {
                Owner::Person => None,
                Owner::Agent(_) => Some("the person stopped it"),
            };
            if self.end_video(tab, why) {
                self.on_videos_changed();
            }
            if owner == Owner::Person {
                // Its file is finished within moments: then the panels
                // show where it was saved.
                self.videos.keep_saved().await;
                self.videos_changed.send_modify(|n| *n += 1);
            }
            return Ok(());
        }
        if !self.with_core(|c| c.is_shared(tab)) {
            return Err(format!("tab {tab} is not shared"));
        }
        self.videos
            .start(tab, Owner::Person, DEFAULT_VIDEO_SIZE, DEFAULT_VIDEO_FPS)
            .map_err(|e| match e {
                StartError::Busy => format!("tab {tab} is being recorded already"),
                StartError::NoDirectory => "no state directory to keep a video in".to_owned(),
                StartError::File(why) => why,
            })?;
        self.screencast(tab, &screencast(DEFAULT_VIDEO_SIZE));
        self.on_videos_changed();
        Ok(())
    }
}
