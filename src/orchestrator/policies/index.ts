import type { Strategy } from "../strategy.js";
import { roundRobin } from "./round-robin.js";
import { rounds } from "./rounds.js";
import { confidence } from "./confidence.js";
import { ranked } from "./ranked.js";
import { autonomous } from "./autonomous.js";
import { scene } from "./scene.js";

/** Every turn-taking strategy, by the `strategy.type` a scenario names. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- strategies differ in their parameter types
export const strategies: Record<string, Strategy<any>> = {
  [roundRobin.type]: roundRobin,
  [rounds.type]: rounds,
  [confidence.type]: confidence,
  [ranked.type]: ranked,
  [autonomous.type]: autonomous,
  [scene.type]: scene,
};
