import type { RpcResponse } from '@homing/contracts';
import { RpcError, type RpcClient } from '@homing/platform';

/** A scan as an alert words it: when, and roughly where (city and country, when the offline database knew them). */
export type ScanOfAlert = RpcResponse<'items.rpc.get-scan'>;

/**
 * Asks items for the scan an alert is about, when the alert is sent: jobs and events carry its id only, never its
 * place. Null once the scan or its item is gone (404): nothing left to tell. Anything else is retried.
 */
export async function scanOfAlert(rpc: RpcClient, scanId: string): Promise<ScanOfAlert | null> {
  try {
    return await rpc.request('items.rpc.get-scan', { scanId });
  } catch (error) {
    if (error instanceof RpcError && error.body.status === 404) return null;
    throw error;
  }
}
