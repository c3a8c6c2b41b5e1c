//! Fuzz target: The controller Response deserialiser (what clients read).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cotab_fuzz::controller_response(data));
