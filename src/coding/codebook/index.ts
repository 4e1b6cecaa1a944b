export * from "./schema.js";
export { loadCodebook, loadCodebookFile, parseCodebook, shippedCodebookIds, shippedCodebooksDir } from "./load.js";
