export * from "./config.js";
export * from "./study.js";
export { artifacts, loadArtifact, readArtifact, writeArtifact, validateArtifact, type ArtifactRead } from "./artifacts.js";
export type { Artifact } from "../util/artifact.js";
export { acquireStudyLock, withStudyLock, StudyLockedError, type StudyLockOptions, type StudyLockHolder, type ReleaseStudyLock } from "./lock.js";
export { diskReader, type StudyReader } from "./reader.js";
