// Lint rules that keep the layout honest (run by `npm test`): no unused code, the type-aware basics.
// Import cycles are checked by dpdm and unused files/exports by knip (`npm run lint`): the ESLint
// import plugins need native resolver bindings that the registry we install from does not carry
// for every platform, which breaks `npm ci`.
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "**/*.js", "**/*.mjs", ".demo/**", "test-output/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "error",
      // The CLI bundle leaves zod's locales namespace out (scripts/bundle-cli.mjs): it would be empty there.
      "no-restricted-properties": [
        "error",
        { property: "locales", message: "zod's locales are not in the CLI bundle (scripts/bundle-cli.mjs); zod's English messages are its default." },
      ],
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
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/cli/*", "../cli/*"], message: "Library code must not import the CLI; put shared logic in src/stages or below." }] },
      ],
    },
  },
  {
    // Libraries loaded on first use, each through its one module: a run that needs none of them never imports them.
    files: ["src/**/*.ts"],
    ignores: ["src/llm/sdk.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "openai",
              allowTypeImports: true,
              message: "load the openai SDK with openaiSdk() (src/llm/sdk.ts), so runs that call no model never import it.",
            },
            { name: "yaml", allowTypeImports: true, message: "parse YAML with parseYaml (src/util/yaml.ts), which loads the package on first use." },
            { name: "fast-xml-parser", allowTypeImports: true, message: "read and write XML through src/util/xml.ts, which loads the parser on first use." },
            { name: "fflate", allowTypeImports: true, message: "zip and unzip with fflate() (src/util/zip.ts), which loads the package on first use." },
            { name: "diff", allowTypeImports: true, message: "the diff package is loaded on first use by src/coding/realign.ts, its one user." },
            {
              name: "iconv-lite",
              allowTypeImports: true,
              message: "iconv-lite is loaded on first use by src/ingest/encoding.ts (only files not in UTF-8 need it).",
            },
            {
              name: "chardet",
              allowTypeImports: true,
              message: "chardet is loaded on first use by src/ingest/encoding-scan.ts (only files not in UTF-8 need it).",
            },
          ],
        },
      ],
    },
  },
);
