"""Appointments confirmed by a one-time code: the codes and bookings, notices and reminders."""
