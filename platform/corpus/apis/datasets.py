"""Dataset endpoints: list/create, detail (read, change, delete) and the problems of a dataset."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.response import Response
from rest_framework.validators import UniqueValidator
from rest_framework.views import APIView

from core.permissions import IsStaffOrReadOnlyForMembers
from core.schema import ErrorSerializer
from core.serializers import BlankFormFieldsRefused

from .. import services
from ..models import Dataset, Problem
from ..selectors import dataset_get, dataset_list, problem_list
from .common import dataset_or_404, detail_schema


# --- serializers -------------------------------------------------------------------------------


class DatasetMemberSerializer(serializers.ModelSerializer):
    """What an annotator sees of a dataset they annotate."""

    problem_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "problem_count"]
        read_only_fields = fields


class DatasetStaffSerializer(serializers.ModelSerializer):
    problem_count = serializers.IntegerField(read_only=True)
    annotators = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "guidelines", "annotators", "labels_per_item", "lease_seconds",
                  "queue_order", "fill_order", "problem_count", "created_by", "created_at"]
        read_only_fields = fields


class DatasetOutSerializer(serializers.Serializer):
    """The schema of a dataset in ``GET`` answers (documentation only; ``_dataset_out`` picks the
    serializer): annotators get the first four fields, staff every field."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    problem_count = serializers.IntegerField()
    guidelines = serializers.CharField(required=False, allow_blank=True, help_text="staff only")
    annotators = serializers.ListField(child=serializers.CharField(), required=False, help_text="staff only")
    labels_per_item = serializers.IntegerField(required=False, help_text="staff only")
    lease_seconds = serializers.IntegerField(required=False, help_text="staff only")
    queue_order = serializers.ChoiceField(choices=Dataset.QueueOrder.choices, required=False, help_text="staff only")
    fill_order = serializers.ChoiceField(choices=Dataset.FillOrder.choices, required=False, help_text="staff only")
    created_by = serializers.CharField(required=False, allow_null=True, help_text="staff only")
    created_at = serializers.DateTimeField(required=False, help_text="staff only")

    class Meta:
        ref_name = "DatasetOut"


def _dataset_out(request, dataset: Dataset) -> dict:
    serializer = DatasetStaffSerializer if request.user.is_staff else DatasetMemberSerializer
    return serializer(dataset).data


class DatasetInputSerializer(BlankFormFieldsRefused):
    name = serializers.CharField(
        max_length=100, validators=[UniqueValidator(Dataset.objects.all(), message="A dataset with this name exists.")]
    )
    description = serializers.CharField(required=False, allow_blank=True, default="")
    guidelines = serializers.CharField(required=False, allow_blank=True, default="")
    annotators = serializers.SlugRelatedField(
        slug_field="username", many=True, required=False, default=list,
        queryset=get_user_model().objects.filter(is_active=True),
        help_text="Usernames of the annotators who may see and label this dataset.",
    )
    labels_per_item = serializers.IntegerField(
        required=False, min_value=1, max_value=50, help_text="k: distinct annotators per item (default 2)."
    )
    lease_seconds = serializers.IntegerField(
        required=False, min_value=10, max_value=7 * 24 * 3600,
        help_text="How long an item handed to an annotator stays reserved for them (default 600).",
    )
    queue_order = serializers.ChoiceField(
        choices=Dataset.QueueOrder.choices, required=False,
        help_text="uncertainty (ParaQD score nearest the threshold first), disagreement, or random.",
    )
    fill_order = serializers.ChoiceField(
        choices=Dataset.FillOrder.choices, required=False,
        help_text="complete (default: finish items already started, so agreement arrives early) or breadth "
        "(every item gets a first label before any gets its last).",
    )


class DatasetPatchSerializer(DatasetInputSerializer):
    def __init__(self, *args, dataset: Dataset | None = None, **kwargs):
        super().__init__(*args, partial=True, **kwargs)
        if dataset is not None:
            # Swap the uniqueness check for one that skips this dataset; keep the length check.
            name = self.fields["name"]
            name.validators = [v for v in name.validators if not isinstance(v, UniqueValidator)] + [
                UniqueValidator(Dataset.objects.exclude(pk=dataset.pk), message="A dataset with this name exists.")
            ]


class ProblemSerializer(serializers.ModelSerializer):
    # Read-only model fields lose allow_blank: declared, so the schema admits "" (no split).
    split = serializers.ChoiceField(choices=Problem.Split.choices, read_only=True, allow_blank=True)

    class Meta:
        model = Problem
        fields = [
            "id", "text", "source", "source_id", "split", "answer", "equation", "numbers", "metadata", "created_at",
        ]
        read_only_fields = fields


# --- datasets ----------------------------------------------------------------------------------


class DatasetListCreateApi(generics.ListAPIView):
    """``GET datasets/``: staff see all, annotators their own. ``POST datasets/``: staff create."""

    permission_classes = [IsStaffOrReadOnlyForMembers]

    def get_queryset(self):
        return dataset_list(user=self.request.user)

    def get_serializer_class(self):
        return DatasetStaffSerializer if self.request.user.is_staff else DatasetMemberSerializer

    @extend_schema(
        responses=DatasetOutSerializer(many=True),
        description="Staff: every dataset. Annotators: only theirs, with id, name, description, problem_count.",
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(request=DatasetInputSerializer, responses={201: DatasetStaffSerializer, 400: ErrorSerializer})
    def post(self, request):
        data = DatasetInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            dataset = services.dataset_setup(**data.validated_data, created_by=request.user)
        except DjangoValidationError as exc:  # the name was taken since validation, or is blank
            raise serializers.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages) from exc
        return Response(
            _dataset_out(request, dataset_get(user=request.user, dataset_id=dataset.pk)), status=status.HTTP_201_CREATED
        )


class DatasetDetailApi(APIView):
    """``GET`` for staff and the dataset's annotators (404 for anyone else); PATCH/DELETE staff."""

    permission_classes = [IsStaffOrReadOnlyForMembers]

    @extend_schema(responses={200: DatasetOutSerializer, 404: detail_schema})
    def get(self, request, dataset_id: int):
        return Response(_dataset_out(request, dataset_or_404(request, dataset_id)))

    @extend_schema(request=DatasetInputSerializer(partial=True), responses={200: DatasetStaffSerializer, 400: ErrorSerializer})
    def patch(self, request, dataset_id: int):
        dataset = dataset_or_404(request, dataset_id)
        data = DatasetPatchSerializer(data=request.data, dataset=dataset)
        data.is_valid(raise_exception=True)
        services.dataset_update(dataset=dataset, **data.validated_data)
        return Response(_dataset_out(request, dataset_get(user=request.user, dataset_id=dataset.pk)))

    @extend_schema(responses={204: None})
    def delete(self, request, dataset_id: int):
        services.dataset_delete(dataset=dataset_or_404(request, dataset_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProblemListApi(generics.ListAPIView):
    """``GET datasets/{id}/problems/``: the problems, paginated (staff or the dataset's annotators)."""

    serializer_class = ProblemSerializer

    def get_queryset(self):
        return problem_list(dataset=dataset_or_404(self.request, self.kwargs["dataset_id"]))
