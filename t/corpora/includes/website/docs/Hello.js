export default function dokiwi() { return 'dokiwi'; }
