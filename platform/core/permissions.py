"""Role-based permissions shared by the REST API. Staff = ``user.is_staff``; everyone else
who can log in is an annotator."""
from __future__ import annotations

from rest_framework.permissions import BasePermission


class IsStaff(BasePermission):
    message = "This endpoint is for staff only."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class IsStaffOrReadOnlyForMembers(BasePermission):
    """Annotators may read (their own scope is applied by the selector); only staff write."""

    message = "Only staff may change this."

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return request.user.is_staff
