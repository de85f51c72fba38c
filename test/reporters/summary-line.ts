/**
 * Ends the run with the files that took longest (where to look when `npm test` grows past its 20
 * minutes) and then the plain closing line CI reads: `N passed, N failed, N skipped`.
 */
import type { Reporter, TestModule } from "vitest/node";

const SLOWEST = 12;

export default class SummaryLine implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) counts[test.result().state] += 1;
    }
    const slowest = testModules
      .map((module) => ({ module, seconds: module.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST);
    if (slowest.length > 1) {
      const lines = slowest.map(
        ({ module, seconds }) =>
          `  ${seconds.toFixed(1).padStart(6)} s  ${module.project.name.padEnd(12)} ${module.relativeModuleId}`,
      );
      process.stdout.write(`\nslowest files (their tests and hooks):\n${lines.join("\n")}\n`);
    }
    process.stdout.write(
      `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped + counts.pending} skipped\n`,
    );
  }
}
