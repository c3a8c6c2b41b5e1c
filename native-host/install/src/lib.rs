//! `cotab-install`: putting cotab's native host where each browser looks
//! for it ([`install`]), and `cotab doctor`'s checks of everything cotab
//! needs ([`doctor`]).

pub mod doctor;
pub mod install;
