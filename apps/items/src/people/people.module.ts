import { Module } from '@nestjs/common';
import { PeopleRepository } from './people.repository';
import { PeopleRpcController } from './people.rpc-controller';
import { PeopleService } from './people.service';

@Module({
  controllers: [PeopleRpcController],
  providers: [PeopleRepository, PeopleService],
  exports: [PeopleService],
})
export class PeopleModule {}
