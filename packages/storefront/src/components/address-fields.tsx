import type { Schemas } from '@commerce/sdk';

type AddressFieldsValue = Schemas['AddressFieldsDto'];

const countryName = new Intl.DisplayNames(['en'], { type: 'region' });

/** A shipping address's fields out of a form built with AddressFields. */
export function addressFromForm(form: FormData): AddressFieldsValue {
  const text = (name: string) => String(form.get(name) ?? '').trim();
  return {
    name: text('name'),
    line1: text('line1'),
    line2: text('line2'),
    city: text('city'),
    region: text('region'),
    postal_code: text('postal_code'),
    country: text('country').toUpperCase(),
    phone: text('phone'),
  };
}

/** The fields of an address (an address book entry or a cart's shipping address), each labelled. */
export function AddressFields({
  initial,
  countries,
}: {
  initial?: Partial<AddressFieldsValue>;
  /** The countries to choose from (the region's); empty: any ISO 3166-1 alpha-2 code. */
  countries: string[];
}) {
  const field = (name: keyof AddressFieldsValue, label: string, autoComplete: string, required = false) => (
    <div className="field">
      <label htmlFor={`address-${name}`}>
        {label}
        {!required && <span className="optional"> (optional)</span>}
      </label>
      <input
        id={`address-${name}`}
        name={name}
        autoComplete={autoComplete}
        required={required}
        defaultValue={initial?.[name] ?? ''}
      />
    </div>
  );
  return (
    <>
      {field('name', 'Full name', 'name', true)}
      {field('line1', 'Address line 1', 'address-line1', true)}
      {field('line2', 'Address line 2', 'address-line2')}
      {field('city', 'City', 'address-level2', true)}
      {field('region', 'State, province or county', 'address-level1')}
      {field('postal_code', 'Postal code', 'postal-code')}
      <div className="field">
        <label htmlFor="address-country">Country</label>
        {countries.length > 0 ? (
          <select
            id="address-country"
            name="country"
            autoComplete="country"
            defaultValue={initial?.country ?? countries[0]}
          >
            {countries.map((code) => (
              <option key={code} value={code}>
                {countryName.of(code) ?? code}
              </option>
            ))}
          </select>
        ) : (
          <input
            id="address-country"
            name="country"
            autoComplete="country"
            required
            pattern="[A-Za-z]{2}"
            maxLength={2}
            aria-describedby="address-country-hint"
            defaultValue={initial?.country ?? ''}
          />
        )}
        {countries.length === 0 && (
          <span id="address-country-hint" className="hint">
            Two-letter code, such as DE or US
          </span>
        )}
      </div>
      {field('phone', 'Phone', 'tel')}
    </>
  );
}
