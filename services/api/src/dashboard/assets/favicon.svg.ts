/** The dashboard's tab icon: a small square growing into a large one (an upscale). */
export const DASHBOARD_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#0b57d0"/>
<rect x="6" y="16" width="10" height="10" rx="1.5" fill="#fff"/>
<path d="M14 18 24 8M17 8h7v7" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
`;
