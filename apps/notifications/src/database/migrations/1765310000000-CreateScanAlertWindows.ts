import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateScanAlertWindows1765310000000 implements MigrationInterface {
  name = 'CreateScanAlertWindows1765310000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // The owner of a lost item gets at most one scan e-mail per item per 15 minutes (pushes are not coalesced): the
    // window in force per item, the event that opened it (its id names the window's one e-mail job) and that event's
    // scan (an id: the place stays in items). The retention rule finds closed windows by started_at.
    await queryRunner.query(`
      CREATE TABLE scan_alert_windows (
        item_code text PRIMARY KEY,
        event_id uuid NOT NULL,
        scan_id uuid NOT NULL,
        started_at timestamptz NOT NULL
      )`);
    await queryRunner.query('CREATE INDEX scan_alert_windows_started_at_idx ON scan_alert_windows (started_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE scan_alert_windows');
  }
}
