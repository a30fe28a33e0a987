import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SearchSynonym } from './search-synonym.entity.js';
import { SearchSynonyms } from './search-synonyms.js';
import { SearchSynonymsController } from './search-synonyms.controller.js';
import { SearchSynonymsService } from './search-synonyms.service.js';

/** Other modules import this module and inject SearchSynonyms (src/search/search-synonyms.ts). */
@Module({
  imports: [TypeOrmModule.forFeature([SearchSynonym])],
  controllers: [SearchSynonymsController],
  providers: [SearchSynonyms, SearchSynonymsService],
  exports: [SearchSynonyms],
})
export class SearchModule {}
