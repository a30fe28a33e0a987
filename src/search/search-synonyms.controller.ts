import { Body, Controller, Delete, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import {
  CreateSearchSynonymDto,
  SearchSynonymResponseDto,
  UpdateSearchSynonymDto,
} from './dto/search-synonym.dto.js';
import { SearchSynonymsService } from './search-synonyms.service.js';

const NOT_FOUND = 'Search synonym 3 not found';
const BAD_ID = { field: 'id', rule: 'isInt', message: 'id must be an integer number' };
const NOT_ONE_WORD = {
  field: 'words.1',
  rule: 'singleWord',
  message:
    'words.1 must be one word (letters, digits and _, with hyphens or apostrophes only between them): "t shirt"',
};
const APPLIES =
  'The product search applies the change at once on this instance and within SEARCH_SYNONYMS_POLL_MS (5 s) on ' +
  'the others, without re-indexing.';

@ApiTags('search')
@ApiBearerAuth()
@Roles('admin')
@Controller('search/synonyms')
export class SearchSynonymsController {
  constructor(private readonly synonyms: SearchSynonymsService) {}

  @Get()
  @ApiOperation({ summary: 'List search synonyms (admin)', description: 'Id order.' })
  @ApiEnvelope(SearchSynonymResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'min', message: 'page_size must not be less than 1' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<SearchSynonymResponseDto>> {
    return this.synonyms.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a search synonym (admin)',
    description:
      'Words a product search treats as one: a search for one of them also finds the others (with ' +
      '`one_way_from`, only a search for that word does). ' +
      APPLIES,
  })
  @ApiEnvelope(SearchSynonymResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, { 400: NOT_ONE_WORD })
  create(@Body() dto: CreateSearchSynonymDto): Promise<SearchSynonymResponseDto> {
    return this.synonyms.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a search synonym (admin)' })
  @ApiEnvelope(SearchSynonymResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<SearchSynonymResponseDto> {
    return this.synonyms.get(id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Update a search synonym (admin)',
    description:
      'Partial: only the fields sent change; `words` sent replaces the list, `one_way_from: null` makes the entry ' +
      'two-way. The entry after the change must keep the rules (`one_way_from` one of its words). ' +
      APPLIES,
  })
  @ApiEnvelope(SearchSynonymResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'one_way_from',
      rule: 'oneOfWords',
      message: 'one_way_from must be one of the words: "shirt" is not',
    },
    404: NOT_FOUND,
  })
  update(@IdParam() id: number, @Body() dto: UpdateSearchSynonymDto): Promise<SearchSynonymResponseDto> {
    return this.synonyms.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a search synonym (admin)', description: APPLIES })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  remove(@IdParam() id: number): Promise<void> {
    return this.synonyms.remove(id);
  }
}
