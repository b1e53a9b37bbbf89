// SNAP server conformance: checks any SNAP server with positive and negative scenarios per operation.
export { OPERATIONS } from './operations.ts';
export {
  type ConformanceReport,
  formatJson,
  formatJunit,
  formatText,
  type RecordedRequest,
  type RecordedResponse,
  type ScenarioResult,
  summarise,
  xml,
} from './report.ts';
export { type ConformanceOptions, runConformance } from './runner.ts';
export { SUITES, type Suite } from './suites.ts';
export type { ConformanceContext, Expectation, Operation, Scenario, ScenarioRequest } from './types.ts';
