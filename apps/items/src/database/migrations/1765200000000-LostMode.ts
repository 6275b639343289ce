import type { MigrationInterface, QueryRunner } from 'typeorm';

export class LostMode1765200000000 implements MigrationInterface {
  name = 'LostMode1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Lost mode: since when the owner has marked the item lost (null: not lost), and the note finders see meanwhile.
    // The note goes when the item is marked back (its owner has it again), so it lives only as long as lost mode.
    await queryRunner.query('ALTER TABLE items ADD COLUMN lost_at timestamptz');
    await queryRunner.query('ALTER TABLE items ADD COLUMN lost_note text CHECK (char_length(lost_note) <= 280)');
    await queryRunner.query('ALTER TABLE items ADD CONSTRAINT items_lost_note_only_when_lost CHECK (lost_note IS NULL OR lost_at IS NOT NULL)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE items DROP CONSTRAINT items_lost_note_only_when_lost');
    await queryRunner.query('ALTER TABLE items DROP COLUMN lost_note');
    await queryRunner.query('ALTER TABLE items DROP COLUMN lost_at');
  }
}
