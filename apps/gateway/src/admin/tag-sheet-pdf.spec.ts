import { winAnsiText } from './tag-sheet-pdf';

describe('the tag sheet PDF without a Unicode font', () => {
  it('draws what Helvetica can (WinAnsi), accents taken apart to their letter where they have one, the rest as ?', () => {
    expect(winAnsiText('Stickers, März – 50 € · page 1 of 2')).toBe('Stickers, März – 50 € · page 1 of 2');
    expect(winAnsiText('Łódź 東京 Ωμέγα · page 1 of 1')).toBe('?ódz ?? ????? · page 1 of 1');
  });
});
