// Popup loader: all logic lives in Rust.
import { initSync, popup_main } from "./cotab_popup.js";
import { wasmBytes } from "./cotab_popup_wasm.js";

initSync({ module: wasmBytes });
popup_main();
