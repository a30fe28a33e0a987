import { useId } from 'react';
import { formatMoney } from './format';
import {
  facetChoices,
  NO_FACET_FILTERS,
  optionNames,
  priceChoices,
  sameOptionValue,
  sameRange,
  toggleOptionValue,
  type FacetChoice,
  type FacetFilters,
  type PriceRange,
  type ProductFacets as Facets,
} from './product-filters';
import { CheckboxField } from './ui';

/**
 * The API counts a facet over at most SEARCH_TOTAL_LIMIT matches (10,000 unless configured otherwise) and does
 * not say the number: `meta.facets_exact` false says only that it stopped.
 */
const FACET_COUNT_LIMIT = 10_000;

function priceLabel({ min, max }: PriceRange, currency: string | null): string {
  if (max === null) return `${formatMoney(min ?? 0, currency)} and more`;
  if (min === null) return `Up to ${formatMoney(max, currency)}`;
  return `${formatMoney(min, currency)} – ${formatMoney(max, currency)}`;
}

/** One value of a facet: a checkbox (several may be chosen) or a radio button (one), its label with its count. */
function Choice({
  type,
  name,
  label,
  count,
  checked,
  onChange,
}: {
  type: 'checkbox' | 'radio';
  name?: string;
  label: string;
  count: number | null;
  checked: boolean;
  onChange: () => void;
}) {
  return (
    <li>
      <label className="facet-value">
        <input type={type} name={name} checked={checked} onChange={onChange} />
        {/* One flex item: a label that wraps keeps its count after its last word. */}
        <span>
          {label}
          {count !== null && <span className="count"> ({count.toLocaleString()})</span>}
        </span>
      </label>
    </li>
  );
}

/** A facet whose values are chosen one at a time (category, price), with "any" first to choose none. */
function SingleChoiceFacet<T>({
  legend,
  anyLabel,
  choices,
  chosen,
  same,
  label,
  onChoose,
}: {
  legend: string;
  anyLabel: string;
  choices: FacetChoice<T>[];
  chosen: T | null;
  same: (a: T, b: T) => boolean;
  label: (value: T) => string;
  onChoose: (value: T | null) => void;
}) {
  const name = useId();
  return (
    <fieldset>
      <legend>{legend}</legend>
      <ul className="facet-values stacked">
        <Choice
          type="radio"
          name={name}
          label={anyLabel}
          count={null}
          checked={chosen === null}
          onChange={() => onChoose(null)}
        />
        {choices.map((choice) => (
          <Choice
            key={JSON.stringify(choice.value)}
            type="radio"
            name={name}
            label={label(choice.value)}
            count={choice.count}
            checked={chosen !== null && same(choice.value, chosen)}
            onChange={() => onChoose(choice.value)}
          />
        ))}
      </ul>
    </fieldset>
  );
}

/**
 * The product list's facets beside its results: each facet's values with the number of matching products (the
 * API's `meta.facets`, each counted without its own filter), chosen as filters. Every change goes to `onChange`.
 */
export function ProductFacets({
  facets,
  exact,
  filters,
  categoryName,
  currency,
  onChange,
}: {
  facets: Facets | undefined;
  exact: boolean | undefined;
  filters: FacetFilters;
  categoryName: (id: number) => string;
  currency: string | null;
  onChange: (filters: FacetFilters) => void;
}) {
  const chosenRange = filters.price.min === null && filters.price.max === null ? null : filters.price;
  return (
    <form className="facets" role="search" aria-label="Facets" onSubmit={(event) => event.preventDefault()}>
      <CheckboxField
        label="In stock"
        checked={filters.inStock}
        onChange={(event) => onChange({ ...filters, inStock: event.target.checked })}
      />
      <SingleChoiceFacet
        legend="Category"
        anyLabel="Any category"
        choices={facetChoices(
          facets?.category_id,
          filters.categoryId === null ? [] : [filters.categoryId],
          (a, b) => a === b,
        )}
        chosen={filters.categoryId}
        same={(a, b) => a === b}
        label={categoryName}
        onChoose={(categoryId) => onChange({ ...filters, categoryId })}
      />
      {optionNames(facets?.options, filters).map((option) => (
        <fieldset key={option}>
          <legend>{option}</legend>
          <ul className="facet-values">
            {facetChoices(facets?.options?.[option], filters.options[option] ?? [], sameOptionValue).map(
              ({ value, count }) => (
                <Choice
                  key={value}
                  type="checkbox"
                  label={value}
                  count={count}
                  checked={(filters.options[option] ?? []).some((chosen) => sameOptionValue(chosen, value))}
                  onChange={() => onChange(toggleOptionValue(filters, option, value))}
                />
              ),
            )}
          </ul>
        </fieldset>
      ))}
      <SingleChoiceFacet
        legend="Price"
        anyLabel="Any price"
        choices={priceChoices(facets?.price, filters.price)}
        chosen={chosenRange}
        same={sameRange}
        label={(range) => priceLabel(range, currency)}
        onChoose={(range) => onChange({ ...filters, price: range ?? { min: null, max: null } })}
      />
      {exact === false && (
        <p className="hint">Counts over the first {FACET_COUNT_LIMIT.toLocaleString()} matches.</p>
      )}
      {/* Never disabled: a button disabled by its own click would drop the keyboard focus. */}
      <button type="button" onClick={() => onChange(NO_FACET_FILTERS)}>
        Clear filters
      </button>
    </form>
  );
}
