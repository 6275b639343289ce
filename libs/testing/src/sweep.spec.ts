import { isLeftoverDatabaseName, isLeftoverSchemaName, isLeftoverStreamName } from './sweep';

describe('what the test sweep counts as a leftover', () => {
  it("takes the schemas of tests' isolated names and of the benchmark", () => {
    expect(isLeftoverSchemaName('items_t1_ab12cd')).toBe(true);
    expect(isLeftoverSchemaName('notifications_t12_00ff9a')).toBe(true);
    expect(isLeftoverSchemaName('items_bench_3c4d5e')).toBe(true);
  });

  it('never takes a real service schema or anything else', () => {
    for (const name of ['items', 'messaging', 'public', 'pg_catalog', 'items_t1', 'items_t1_ab12cd_x', 'items_tx_ab12cd', 'items_t1_AB12CD']) {
      expect(isLeftoverSchemaName(name)).toBe(false);
    }
  });

  it("takes the streams of tests' and the benchmark's namespaces, never the unprefixed ones", () => {
    expect(isLeftoverStreamName('T1_AB12CD_HOMING_EVENTS')).toBe(true);
    expect(isLeftoverStreamName('BENCH_3C4D5E_HOMING_SECRETS')).toBe(true);
    expect(isLeftoverStreamName('HOMING_EVENTS')).toBe(false);
    expect(isLeftoverStreamName('TX_AB12CD_HOMING_EVENTS')).toBe(false);
  });

  it("takes the databases of stacks and of their template beside the test database, nothing else", () => {
    expect(isLeftoverDatabaseName('homing_test_t1_ab12cd', 'homing_test')).toBe(true);
    expect(isLeftoverDatabaseName('homing_test_tpl_3c4d5e', 'homing_test')).toBe(true);
    for (const name of ['homing_test', 'homing', 'postgres', 'homing_test_t1', 'homing_test_t1_ab12cd_x', 'other_t1_ab12cd', 'homing_test_tx_ab12cd', 'homing_test_t1_AB12CD']) {
      expect(isLeftoverDatabaseName(name, 'homing_test')).toBe(false);
    }
  });
});
