// Public surface of `colloquy compare` for library users and the dashboard (re-exported by
// ../index.ts). CompareReport is the type of the JSON file it writes.
export {
  compareConditions,
  compareFrequencies,
  differencesFrom,
  type CompareFrequencies,
  type CompareOptions,
  type CompareResult,
  type CompareReport,
  type FrequencyRow,
  type Difference,
  type UnitRow,
} from "./compare.js";
export { mapCodes, mapConditions, parseMergeList, type CodeMapping, type ConditionMapping } from "./mapping.js";
export { runTests as runCompareTests, type Comparison, type TestResult as CompareTestResult } from "./tests.js";
export { compareCsvs, compareSummary } from "./output.js";
