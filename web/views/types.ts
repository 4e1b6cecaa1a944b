import type { ViewContext } from "../lib/context.js";

/** A dashboard tab. `empty` is the bundle's empty-state message for this view, if any. */
export interface View {
  id: string;
  title: string;
  render(ctx: ViewContext, main: HTMLElement, empty?: string): void | Promise<void>;
}
