// Fails when a TypeScript file of the scenario casts: `x as T`, `<T>x`, a non-null assertion
// `x!`, or the `any` type. Read with the TypeScript compiler's own parser, so comments and
// strings do not count. Usage: node no_casts.mjs FILE...
import { readFileSync } from "node:fs";
import ts from "typescript";

const found = [];
for (const file of process.argv.slice(2)) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf-8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    const what =
      ts.isAsExpression(node) ? "as" :
      ts.isTypeAssertionExpression(node) ? "<T>" :
      ts.isNonNullExpression(node) ? "!" :
      node.kind === ts.SyntaxKind.AnyKeyword ? "any" : null;
    if (what) {
      const { line, character } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}:${character + 1}: ${what}: ${node.getText().slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (found.length) {
  console.error(found.join("\n"));
  process.exit(1);
}
