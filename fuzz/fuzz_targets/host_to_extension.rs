//! Fuzz target: The HostToExtension deserialiser (what the extension reads).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| cotab_fuzz::host_to_extension(data));
