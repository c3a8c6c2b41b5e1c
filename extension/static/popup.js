// Popup loader: all logic lives in Rust.
import { initSync, popup_main } from "./cotab_extension.js";
import { wasmBytes } from "./cotab_extension_wasm.js";

initSync({ module: wasmBytes });
popup_main();
