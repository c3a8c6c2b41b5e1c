//! Fuzz target: The ExtensionToHost deserialiser (what the daemon reads from the browser).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cotab_fuzz::extension_to_host(data));
