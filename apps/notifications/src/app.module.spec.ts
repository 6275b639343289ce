import { EmailModule } from './channels/email/email.module';
import { PushModule } from './channels/push/push.module';
import { ConsumersModule } from './consumers/consumers.module';
import { ExportModule } from './export/export.module';
import { ItemPeopleModule } from './item-people/item-people.module';
import { modulesOfRole } from './app.module';
import { PushSubscriptionsModule } from './push-subscriptions/push-subscriptions.module';

describe('the modules of each role', () => {
  it('runs the consumers, the push subscription, item settings and export RPCs as consumer, the senders as worker, all of them as all', () => {
    expect(modulesOfRole('consumer')).toEqual([ConsumersModule, PushSubscriptionsModule, ItemPeopleModule, ExportModule]);
    expect(modulesOfRole('worker')).toEqual([EmailModule, PushModule]);
    expect(modulesOfRole('all')).toEqual([ConsumersModule, PushSubscriptionsModule, ItemPeopleModule, ExportModule, EmailModule, PushModule]);
  });
});
