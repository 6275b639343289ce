import { renderTagSheetPdf, TAGS_PER_PDF_PAGE, winAnsiText } from './tag-sheet-pdf';

describe('the tag sheet PDF without a Unicode font', () => {
  it('draws what Helvetica can (WinAnsi), accents taken apart to their letter where they have one, the rest as ?', () => {
    expect(winAnsiText('Stickers, März – 50 € · page 1 of 2')).toBe('Stickers, März – 50 € · page 1 of 2');
    expect(winAnsiText('Łódź 東京 Ωμέγα · page 1 of 1')).toBe('?ódz ?? ????? · page 1 of 1');
  });
});

describe('drawing the tag sheet PDF', () => {
  it('gives the event loop a turn between pages, so other requests (scans) go on while a large sheet is drawn', async () => {
    const codes = Array.from({ length: 5 * TAGS_PER_PDF_PAGE }, (_, index) => `A${String(index).padStart(15, '0')}`);
    // The codes arrive at once, as fast as a reader could ask: only the renderer's own yielding lets anything else run.
    async function* pages(): AsyncGenerator<string[]> {
      yield codes;
    }
    // Counts the turns of the event loop (the check phase, after I/O) that pass while the sheet is drawn.
    const pagesDrawnAtEachTurn: number[] = [];
    let drawn = 0;
    let ticking = true;
    const tick = () => {
      pagesDrawnAtEachTurn.push(drawn);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const chunks: Buffer[] = [];
    for await (const chunk of renderTagSheetPdf({ publicUrl: 'https://homing.example', relayDomain: 'relay.homing.example', label: 'Turns', pages: 5 }, pages())) {
      chunks.push(chunk);
      drawn = (Buffer.concat(chunks).toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;
    }
    ticking = false;
    expect(Buffer.concat(chunks).toString('latin1')).toContain('/Count 5');
    // Another request had its turn after each of the first pages was written, before the last was.
    const turnsBetween = new Set(pagesDrawnAtEachTurn.filter((pagesDrawn) => pagesDrawn < 5));
    expect(turnsBetween.size).toBeGreaterThanOrEqual(4);
  });
});
