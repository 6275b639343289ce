import type { DownloadedFile } from './api-transport';

/**
 * Hands a downloaded file to the browser's own download: a link the user cannot follow (the route needs the Bearer
 * token, which only the API client sends), so the bytes are fetched first and offered from a Blob URL.
 */
export function saveFile({ blob, fileName }: DownloadedFile, fallbackName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName ?? fallbackName;
  link.hidden = true;
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    // After the click has started the download; revoking at once cancels it in some browsers.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}
