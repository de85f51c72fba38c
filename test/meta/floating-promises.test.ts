/**
 * No promise of the daemon is left floating (the store is async, team mode #27): a call whose
 * Promise is neither awaited, returned, nor handed to something that handles it would turn a
 * store error into an unhandled rejection that ends the daemon, or let work run on unordered.
 * Checked with TypeScript's own type checker over native-host/src: an expression statement whose
 * value is a Promise, and an arrow function whose body is a Promise where a callback returning
 * nothing is expected (`setTimeout(() => this.flush())`). `void p` marks one left on purpose (its
 * rejection is handled inside), as `inBackground(log, what, p)` handles one.
 */
import { join } from "node:path";
import ts from "typescript";
import { expect, test } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** Storing a Promise keeps it (whoever reads it awaits it). */
const ASSIGNMENTS = new Set([
  ts.SyntaxKind.EqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
]);

/** A chain that ends in a rejection handler: `.catch(f)`, `.then(f, g)`, or either followed by `.finally(h)`. */
function handled(expression: ts.Expression): boolean {
  if (!ts.isCallExpression(expression) || !ts.isPropertyAccessExpression(expression.expression)) return false;
  const { name, expression: object } = expression.expression;
  if (name.text === "catch") return expression.arguments.length >= 1;
  if (name.text === "then") return expression.arguments.length >= 2;
  if (name.text === "finally") return handled(object);
  return false;
}

function floatingPromises(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("Expected tsconfig.build.json to parse");
  const program = ts.createProgram(config.fileNames, config.options);
  const checker = program.getTypeChecker();
  const isPromise = (node: ts.Node) => {
    const type = checker.getTypeAtLocation(node);
    const parts = type.isUnion() ? type.types : [type];
    return parts.some(
      (part) =>
        part.getProperty("then") !== undefined &&
        checker.getTypeOfSymbol(part.getProperty("then") as ts.Symbol).getCallSignatures().length > 0,
    );
  };
  const found: string[] = [];
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.includes("/native-host/src/") || file.fileName.endsWith(".test.ts")) continue;
    const where = (node: ts.Node) => {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart());
      return `${file.fileName.slice(ROOT.length + 1)}:${line + 1}: ${node.getText().split("\n")[0]}`;
    };
    const visit = (node: ts.Node) => {
      if (ts.isExpressionStatement(node)) {
        const expression = node.expression;
        const settled =
          ts.isVoidExpression(expression) ||
          ts.isAwaitExpression(expression) ||
          (ts.isBinaryExpression(expression) && ASSIGNMENTS.has(expression.operatorToken.kind)) ||
          handled(expression);
        if (!settled && isPromise(expression)) found.push(where(node));
      }
      if (
        ts.isArrowFunction(node) &&
        !ts.isBlock(node.body) &&
        !ts.isVoidExpression(node.body) &&
        isPromise(node.body)
      ) {
        const signature = checker.getContextualType(node)?.getCallSignatures()[0];
        const expected = signature ? checker.getReturnTypeOfSignature(signature) : undefined;
        if (expected && expected.flags & ts.TypeFlags.Void) found.push(where(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

test("no Promise in the daemon's code is dropped: each is awaited, returned, or handed on with `void`/inBackground", () => {
  expect(floatingPromises()).toEqual([]);
}, 120_000);
