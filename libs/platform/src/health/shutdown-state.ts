import { Injectable, type OnModuleDestroy } from '@nestjs/common';

/** Set as soon as shutdown starts, so readiness fails and load balancers stop sending work before we stop. */
@Injectable()
export class ShutdownState implements OnModuleDestroy {
  shuttingDown = false;

  onModuleDestroy(): void {
    this.shuttingDown = true;
  }
}
