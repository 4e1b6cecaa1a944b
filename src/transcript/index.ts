export * from "./schema.js";
export { validateSession, formatIssues, formatPath } from "./validate.js";
export { readSessionFile, writeSessionFile } from "./io.js";
export { turnId, slugify, participantId, uniqueId } from "./ids.js";
