import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full collection, always: for tests that check what is still alive. The product's
 * collectGarbage (src/util/memory.ts) skips a collection when the heap did not grow much, so a
 * test that counts live objects after it could count garbage as alive.
 */
export function fullCollection(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}
