import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

// Every reliability test reports figures; each run prints them and merges them into docs/reliability.md, one row per
// test and size (a small run never overwrites a full run's row, and the other way round).
const REPORT = resolve(__dirname, '../../../docs/reliability.md');

export interface Figure {
  id: string;
  test: string;
  figure: string;
  size: string;
  passed: boolean;
}

export const fullSize = (): boolean => process.env.HOMING_FAULT_FULL === '1';
/** The small size in `npm test`, the full size with `npm run test:fault -- --full`. */
export const sized = <T>(small: T, full: T): T => (fullSize() ? full : small);

export function reportFigure(figure: Figure): void {
  const date = new Date().toISOString().slice(0, 10);
  const sizeLabel = `${fullSize() ? 'full' : 'small'}: ${figure.size}`;
  const row = `| ${figure.id} | ${figure.test} | ${figure.figure} | ${sizeLabel} | ${date} | ${figure.passed ? 'pass' : 'FAIL'} |`;
  console.log(`[reliability] ${row}`);
  const rows = new Map<string, string>();
  if (existsSync(REPORT)) {
    for (const line of readFileSync(REPORT, 'utf8').split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim());
      if (cells.length >= 7 && /^[A-Z]\d+$/.test(cells[1])) rows.set(`${cells[1]} ${cells[4].split(':')[0]}`, line);
    }
  }
  rows.set(`${figure.id} ${fullSize() ? 'full' : 'small'}`, row);
  const sorted = [...rows.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })).map(([, line]) => line);
  // Suites of two Jest workers report side by side: the file is replaced whole (written aside, then renamed), so a
  // reader never sees it half written.
  const written = `${REPORT}.${process.pid}.tmp`;
  writeFileSync(
    written,
    [
      '# Reliability figures',
      '',
      'Written by the reliability suite (`tests/fault`, `tests/security`; `../shared/RELIABILITY.md` says what each test',
      'proves). Small sizes run in `npm test`; full sizes with `npm run test:fault -- --full`. One row per test and size,',
      'the latest run of each.',
      '',
      '| ID | Test | Figure | Size | Date | Result |',
      '|---|---|---|---|---|---|',
      ...sorted,
      '',
    ].join('\n'),
  );
  renameSync(written, REPORT);
}
