import { useEffect } from 'react';

import { useApi } from '../../lib/api-context';
import { recordScan } from './public-item';

// The codes whose page this page load has counted: StrictMode's second effect, a re-render or coming back to the same
// tag in the app counts no second scan. A reload is a new visit, and counts.
const recordedCodes = new Set<string>();

/**
 * Counts one scan of the tag's finder page, once it is shown to someone other than its logged-in owner (`enabled`).
 * Failures are dropped: the count is the owner's, and must never disturb the finder.
 */
export function useRecordScan(code: string, enabled: boolean) {
  const api = useApi();
  useEffect(() => {
    if (!enabled || recordedCodes.has(code)) return;
    recordedCodes.add(code);
    recordScan(api, code).catch(() => undefined);
  }, [api, code, enabled]);
}
