/** Print rows as aligned columns (the first row sets the column count), two spaces apart. */
export function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]!.map((_c, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
}
