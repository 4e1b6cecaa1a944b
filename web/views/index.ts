import type { View } from "./types.js";
import { overviewView } from "./overview.js";
import { whoView } from "./who.js";
import { compareView } from "./compare.js";
import { sequencesView } from "./sequences.js";
import { timelineView } from "./timeline.js";
import { agreementView } from "./agreement.js";
import { styleView } from "./style.js";
import { topicsView } from "./topics.js";
import { participationView } from "./participation.js";
import { balesView } from "./bales.js";

/** The tabs, in the order a paper tells the story. */
export const views: View[] = [
  overviewView,
  whoView,
  compareView,
  sequencesView,
  timelineView,
  agreementView,
  styleView,
  topicsView,
  participationView,
  balesView,
];
