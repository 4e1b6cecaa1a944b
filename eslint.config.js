// Lint rules that keep the layout honest (run by `npm test`): no import cycles, no unused code,
// the type-aware basics. Formatting is Prettier's job (`npm run format`), not ESLint's.
import tseslint from "typescript-eslint";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "**/*.js", "**/*.mjs", ".demo/**", "test-output/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "import-x": importX },
    settings: { "import-x/resolver-next": [createTypeScriptImportResolver({ project: "tsconfig.json" })] },
    rules: {
      // A cycle means two modules are one module, or a layer calls back up (see CONTRIBUTING.md).
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-self-import": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    // Tests poke at private shapes; `any` there is a cast, not a design.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Commands are the edge: they may not call each other (src/cli/main.ts registers them all).
    files: ["src/**/*.ts"],
    ignores: ["src/cli/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["**/cli/*", "../cli/*"], message: "Library code must not import the CLI; put shared logic in src/stages or below." }] }],
    },
  },
);
