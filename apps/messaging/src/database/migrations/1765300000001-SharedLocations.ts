import type { MigrationInterface, QueryRunner } from 'typeorm';

export class SharedLocations1765300000001 implements MigrationInterface {
  name = 'SharedLocations1765300000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A place a finder chose to share is an entry of their conversation (a message with empty content), so it goes
    // with the conversation: deleted by the finder, a reset, the item's or account's erasure, or retention. Stored as
    // rounded as the finder chose: 2 decimals (about 1 km) unless precise.
    await queryRunner.query('ALTER TABLE messages ADD COLUMN location_lat double precision CHECK (location_lat BETWEEN -90 AND 90)');
    await queryRunner.query('ALTER TABLE messages ADD COLUMN location_lon double precision CHECK (location_lon BETWEEN -180 AND 180)');
    await queryRunner.query('ALTER TABLE messages ADD COLUMN location_accuracy_m integer CHECK (location_accuracy_m >= 0)');
    await queryRunner.query('ALTER TABLE messages ADD COLUMN location_precise boolean');
    await queryRunner.query(
      `ALTER TABLE messages ADD CONSTRAINT messages_location_whole CHECK (
         (location_lat IS NULL AND location_lon IS NULL AND location_accuracy_m IS NULL AND location_precise IS NULL)
         OR (location_lat IS NOT NULL AND location_lon IS NOT NULL AND location_accuracy_m IS NOT NULL AND location_precise IS NOT NULL AND author = 'finder'))`,
    );
    // A place has no text: only a message without one may be empty.
    await queryRunner.query('ALTER TABLE messages DROP CONSTRAINT messages_content_check');
    await queryRunner.query("ALTER TABLE messages ADD CONSTRAINT messages_content_check CHECK (char_length(content) <= 2000 AND (char_length(content) >= 1 OR location_lat IS NOT NULL))");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM messages WHERE location_lat IS NOT NULL');
    await queryRunner.query('ALTER TABLE messages DROP CONSTRAINT messages_content_check');
    await queryRunner.query('ALTER TABLE messages ADD CONSTRAINT messages_content_check CHECK (char_length(content) BETWEEN 1 AND 2000)');
    await queryRunner.query('ALTER TABLE messages DROP CONSTRAINT messages_location_whole');
    for (const column of ['location_precise', 'location_accuracy_m', 'location_lon', 'location_lat']) await queryRunner.query(`ALTER TABLE messages DROP COLUMN ${column}`);
  }
}
