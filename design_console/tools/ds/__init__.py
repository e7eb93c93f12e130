"""The design system as a whole: summary and kit, health report, extraction from code."""
