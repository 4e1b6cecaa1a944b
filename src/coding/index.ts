export * from "./records.js";
export * from "./store.js";
