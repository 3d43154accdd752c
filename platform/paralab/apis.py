"""Site-wide API endpoints."""
from __future__ import annotations

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from .throttling import AuthAddressThrottle, AuthUsernameThrottle


class TokenObtainApi(APIView):
    """Exchange a username and password for the user's API token."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    # The login form's budget (paralab.throttling): per client address and per username tried.
    throttle_classes = [AuthAddressThrottle, AuthUsernameThrottle]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField()
        password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)

    @extend_schema(
        request=InputSerializer,
        responses={200: inline_serializer("TokenOutput", {"token": serializers.CharField()})},
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, **data.validated_data)
        if user is None or not user.is_active:
            return Response({"detail": "Invalid username or password."}, status=status.HTTP_400_BAD_REQUEST)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})
