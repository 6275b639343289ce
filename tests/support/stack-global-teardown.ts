import { dropDatabase, testInfra } from '@homing/testing';
import libraryGlobalTeardown from '../../libs/testing/src/global-teardown';
import { STACK_TEMPLATE_VARIABLE } from './stack-template';

export default async function stackGlobalTeardown(): Promise<void> {
  const template = process.env[STACK_TEMPLATE_VARIABLE];
  if (template) await dropDatabase(testInfra().databaseUrl, template);
  await libraryGlobalTeardown();
}
