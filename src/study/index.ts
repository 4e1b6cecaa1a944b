export * from "./config.js";
export * from "./study.js";
