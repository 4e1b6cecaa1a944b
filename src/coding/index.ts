export * from "./records.js";
export * from "./store.js";
export * from "./codebook/index.js";
