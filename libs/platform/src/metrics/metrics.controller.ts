import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { metricsRegistry } from './metrics';

@Public()
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('Content-Type', metricsRegistry.contentType)
  @Header('Cache-Control', 'no-store')
  metrics(): Promise<string> {
    return metricsRegistry.metrics();
  }
}
