import { Text } from 'ink';
import { fieldWindow, type TextField as Field } from '../state/text-field.ts';
import { clean, truncate } from '../../format/text.ts';

/**
 * A text field on one line after its label, in `width` columns: with the cursor (an inverse cell)
 * kept in view while it has the keys, else the start of its text.
 */
export function TextField({
	label = '',
	field,
	width,
	cursor = true,
}: {
	label?: string;
	field: Field;
	width: number;
	cursor?: boolean;
}) {
	if (!cursor) return <Text wrap="truncate">{truncate(clean(label + field.text), width)}</Text>;
	const shown = fieldWindow(field, width - label.length);
	return (
		<Text wrap="truncate">
			{label}
			{clean(shown.before)}
			<Text inverse>{clean(shown.at)}</Text>
			{clean(shown.after)}
		</Text>
	);
}
