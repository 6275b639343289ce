/**
 * PDF sheets this gateway process draws at once. Drawing is pdfkit on the event loop that also answers scans: a
 * 10,000-tag batch is 417 pages, each drawn between two turns of the loop (tag-sheet-pdf.ts), so renders side by side
 * take turns with every other request. Two let an admin fetch two batches together; a flood of downloads (a script, a
 * stolen admin token) gets no more than that, the rest refused at once.
 */
export const PDF_RENDERS_AT_ONCE = 2;

/**
 * The Retry-After of a download refused for want of a place: about what one render of a large batch takes (a
 * 10,000-tag sheet takes several seconds; a small one is done long before).
 */
export const PDF_RENDER_RETRY_AFTER_SECONDS = 10;

/** Places for renders in flight, in this process's memory (each replica draws its own). */
export class RenderPlaces {
  private inFlight = 0;

  constructor(private readonly size: number) {}

  /** A place, with the function that gives it back (once, however often it is called); null when all are taken. */
  take(): (() => void) | null {
    if (this.inFlight >= this.size) return null;
    this.inFlight += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
    };
  }
}
